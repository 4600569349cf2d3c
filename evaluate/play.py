"""A person at the table: ``folkcards play paston`` / ``folkcards play tri-palki``.

The person takes a seat against agents in the terminal. Each turn shows what that seat may know
— built from the seat's own observation (``decode``), never from the env's full state or its
``render()`` (which shows every hand) — the table, and the legal moves by name. Moves are typed
by name (``AS``, ``bid``, ``pass``, ``whist``, ``contract hearts``, ``surrender``,
``swap 10H QS``, ``swap all``, ``announce``, ...); ``help`` lists them, ``table`` shows the table
again, ``quit`` leaves. A malformed or illegal move gets a clear message and the prompt again;
Ctrl-C and the end of input leave cleanly.

Everything reads input through ``input_fn(prompt) -> str`` and writes through ``write(text)``,
so tests (and other front ends) can script a whole session: see :func:`run_session`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

DESCRIPTION = (
    "Take a seat against agents in the terminal. Each turn shows your hand, the table and your "
    "legal moves; type a move by name, 'help' for the list, 'table' to see the table again, "
    "'quit' (or Ctrl-C / Ctrl-D) to leave."
)
EPILOG = """examples:
  folkcards play paston --opponents heuristic heuristic --seat 0 --seed 1
  folkcards play paston --mode game            (play a whole game to 121)
  folkcards play tri-palki --opponents heuristic random random
  folkcards play tri_palki --opponents heuristic --num-players 3 --mode round

moves:
  Paston     a card by name (AS, 10H, QC; A♠ works too), pass, bid (the next bid),
             bid spades ... bid best spades, contract hearts (or just: hearts),
             surrender, whist
  Tri Palki  pass, swap 10H QS (give your 10H, take QS from the centre),
             swap all, announce, no announce
"""

QUIT_WORDS = {"quit", "exit", "q", "leave", ":q"}
HELP_WORDS = {"help", "h", "?", "moves", "commands"}
SHOW_WORDS = {"table", "show", "look", "hand", "t"}

InputFn = Callable[[str], str]
WriteFn = Callable[[str], None]


class MoveError(ValueError):
    """A typed move that cannot be played now; the message says why."""


def _normalize(text: str) -> str:
    return " ".join(str(text).strip().lower().replace("_", " ").split())


# --- Paston -------------------------------------------------------------------------------------


class _SeatTable:
    """One seat's point of view of a game: seats, names, and the results of finished episodes."""

    game = ""
    episode_word = ""
    record_key = ""  # where record() keeps its episodes: "deals" or "rounds"

    def __init__(self, env: Any, seat: int, labels: list[str], cards: Any, rules: Any, decode: Any):
        self.env = env
        self.raw = env.unwrapped
        self.seat = seat
        self.labels = labels
        self.n = len(env.possible_agents)
        self.cards = cards
        self.rules = rules
        self.decode = decode
        self.me = env.possible_agents[seat]
        self._results_seen = 0

    def abs_seat(self, rel: int) -> int:
        return (self.seat + rel) % self.n

    def who(self, seat: int) -> str:
        return self.labels[seat]

    def sym(self, card: int) -> str:
        return self.cards.symbol(card)

    def _new_results(self) -> list[str]:
        """Summaries of the episodes finished since the last call."""
        done = [e for e in self.raw.record()[self.record_key] if e.get("result")]
        out = []
        for episode in done[self._results_seen :]:
            out.extend(self._summary(episode["result"]))
        self._results_seen = len(done)
        return out

    def _summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        raise NotImplementedError


class PastonTable(_SeatTable):
    """Paston from one seat's point of view: what to show, how to read a typed move."""

    game = "paston"
    episode_word = "deal"
    record_key = "deals"

    def __init__(self, env: Any, seat: int, labels: list[str]):
        from folkcards.envs.cards import PASTON_CARDS
        from folkcards.envs.paston import rules
        from folkcards.envs.paston.observation import decode

        super().__init__(env, seat, labels, PASTON_CARDS, rules, decode)
        self.session_totals = [0, 0, 0]

    def hand_text(self, cards: Sequence[int]) -> str:
        groups = []
        for suit in range(4):
            in_suit = [c for c in cards if self.cards.suit(c) == suit]
            if in_suit:
                groups.append(" ".join(self.sym(c) for c in in_suit))
        return "   ".join(groups) if groups else "(none)"

    def view(self) -> Any:
        return self.decode(self.env.observe(self.me)["observation"])

    # showing ------------------------------------------------------------------------------------
    def show(self, obs: dict[str, np.ndarray]) -> str:
        v = self.decode(obs["observation"])
        level = self.rules.LEVEL_NAMES
        lines = [f"── Paston · {v.phase} · dealer {self.who(self.abs_seat(v.dealer))}"]
        if self.raw.totals is not None:
            totals = self.raw.totals
            lines.append("Totals: " + ", ".join(f"{self.who(s)} {totals[s]}" for s in range(3)))
        auction = []
        for rel in range(3):
            seat = self.abs_seat(rel)
            bids = v.bids[rel]
            said = " ".join(level[b].replace("_", " ") for b in bids)
            if v.auction_passed[rel]:
                said = (said + ", then pass") if said else "pass"
            auction.append(f"{self.who(seat)} {said or '—'}")
        lines.append("Auction: " + "; ".join(auction))
        if v.high_bid is not None:
            lines.append(
                f"Highest bid: {level[v.high_bid].replace('_', ' ')} by {self.who(self.abs_seat(v.high_bidder))}"
            )
        if v.all_pass:
            lines.append("All passed: the J♠ (or 7♠) holder declares")
        if v.declarer is not None:
            contract = (
                "surrendered"
                if v.surrendered
                else level[v.contract].replace("_", " ")
                if v.contract is not None
                else "not named yet"
            )
            lines.append(f"Declarer: {self.who(self.abs_seat(v.declarer))}; contract: {contract}")
            defence = []
            for rel in range(3):
                if v.whist[rel]:
                    defence.append(f"{self.who(self.abs_seat(rel))} whist")
                elif v.defence_pass[rel]:
                    defence.append(f"{self.who(self.abs_seat(rel))} pass")
            if defence:
                lines.append("Defence: " + ", ".join(defence))
        if v.phase in ("play", "over") or any(v.tricks):
            lines.append(
                "Tricks: "
                + ", ".join(f"{self.who(self.abs_seat(r))} {v.tricks[r]}" for r in range(3))
            )
            played = [
                f"{self.who(self.abs_seat(r))}: {' '.join(self.sym(c) for c in v.played[r])}"
                for r in range(3)
                if v.played[r]
            ]
            if played:
                lines.append("Played: " + "; ".join(played))
        if v.trick:
            lines.append(
                "Trick: "
                + "  ".join(f"{self.who(self.abs_seat(r))} {self.sym(c)}" for r, c in v.trick)
            )
        if v.prikup:
            lines.append("Prikup (you took it): " + " ".join(self.sym(c) for c in v.prikup))
        if v.discards:
            lines.append("Your discards: " + " ".join(self.sym(c) for c in v.discards))
        lines.append(f"Your hand: {self.hand_text(v.hand)}")
        lines.append("Your moves: " + ", ".join(self.legal_names(obs)))
        return "\n".join(lines)

    def legal_names(self, obs: dict[str, np.ndarray]) -> list[str]:
        return [self.raw.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"])]

    def help_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        v = self.decode(obs["observation"])
        hints = {
            "auction": "pass, or bid the next step of the ladder ('bid' alone does it)",
            "discard": "discard a card by name, e.g. 7C (twice)",
            "contract": "name a contract ('contract hearts' or just 'hearts') or 'surrender'",
            "defence": "'whist' to defend, or 'pass'",
            "play": "play a card by name, e.g. AS, 10H or A♠ (follow suit, else trump)",
        }
        return [f"Now: {hints.get(v.phase, '')}", "Legal now: " + ", ".join(self.legal_names(obs))]

    # reading a move -----------------------------------------------------------------------------
    def parse(self, text: str, obs: dict[str, np.ndarray]) -> int:
        mask = obs["action_mask"]
        legal = {self.raw.action_to_string(int(a)).lower(): int(a) for a in np.flatnonzero(mask)}
        key = _normalize(text)
        if key in legal:
            return legal[key]
        bids = [a for a in legal.values() if self.rules.BID_BASE <= a < self.rules.CONTRACT_BASE]
        contracts = [
            a for a in legal.values() if self.rules.CONTRACT_BASE <= a < self.rules.SURRENDER
        ]
        if key in ("bid", "b"):
            if bids:
                return bids[0]
            raise MoveError("you cannot bid now")
        if key in ("contract", "c"):
            if len(contracts) == 1:
                return contracts[0]
            if contracts:
                raise MoveError(
                    "which contract? " + ", ".join(self.raw.action_to_string(a) for a in contracts)
                )
            raise MoveError("you cannot name a contract now")
        shortcuts = {"p": "pass", "w": "whist", "whists": "whist", "surrender": "surrender"}
        if key in shortcuts and shortcuts[key] in legal:
            return legal[shortcuts[key]]
        for prefix in ("bid ", "contract "):  # a level alone: "hearts", "best spades"
            if prefix + key in legal:
                return legal[prefix + key]
        try:
            action = self.raw.string_to_action(text)
        except ValueError:
            raise MoveError(f"unknown move {text.strip()!r}; type 'help' for your moves") from None
        if action in legal.values():
            return action
        raise MoveError(self._why_illegal(action, obs))

    def _why_illegal(self, action: int, obs: dict[str, np.ndarray]) -> str:
        v = self.decode(obs["observation"])
        name = self.raw.action_to_string(action)
        legal = ", ".join(self.legal_names(obs))
        if action < 32:
            if action not in v.hand:
                return f"you do not hold {name}. Your moves: {legal}"
            if v.phase == "play":
                return f"{name} is not allowed: follow suit if you can, else play a trump. Your moves: {legal}"
            return f"you cannot play a card now ({v.phase}). Your moves: {legal}"
        return f"{name!r} is not legal now ({v.phase}). Your moves: {legal}"

    # narrating ----------------------------------------------------------------------------------
    def before_step(self, seat: int, action: int) -> dict[str, Any]:
        view = self.view()
        return {"view": view, "phase": view.phase}

    def describe(self, seat: int, action: int, before: dict[str, Any]) -> str:
        who = self.who(seat)
        if action < 32:
            if before["phase"] == "discard":
                if seat == self.seat:
                    return f"{who} discard {self.sym(action)}"
                return f"{who} discards a card (face down)"
            return f"{who} {'play' if seat == self.seat else 'plays'} {self.sym(action)}"
        return f"{who}: {self.raw.action_to_string(action).replace('_', ' ')}"

    def events(self, before: dict[str, Any], seat: int, action: int) -> list[str]:
        out = []
        v0, v1 = before["view"], self.view()
        if before["phase"] == "auction" and v1.phase == "discard" and v1.declarer is not None:
            declarer = self.abs_seat(v1.declarer)
            if declarer == self.seat:
                out.append("you win the auction and take the prikup")
            else:
                out.append(f"{self.who(declarer)} wins the auction and takes the prikup")
        if sum(v1.tricks) > sum(v0.tricks):
            winner = next(r for r in range(3) if v1.tricks[r] > v0.tricks[r])
            cards = [*v0.trick, ((seat - self.seat) % 3, action)]
            shown = "  ".join(f"{self.who(self.abs_seat(r))} {self.sym(c)}" for r, c in cards)
            out.append(
                f"  trick: {shown} → {self.who(self.abs_seat(winner))} ({v1.tricks[winner]} tricks)"
            )
        out.extend(self._new_results())
        return out

    def start(self) -> list[str]:
        self._results_seen = 0
        v = self.view()
        return [
            f"New deal; dealer {self.who(self.abs_seat(v.dealer))}, first bidder {self.who(self.abs_seat(v.first_bidder))}"
        ]

    def _summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        names = self.env.possible_agents
        first = result[names[0]]
        outcome = first["outcome"]
        if outcome == "redeal":
            return ["All passed with J♠ and 7♠ in the prikup: the same dealer deals again."]
        contract = first.get("contract") or first.get("bid") or "-"
        head = {
            "played": f"Deal over: {contract.replace('_', ' ')} played",
            "auto_win": f"Deal over: {contract.replace('_', ' ')} — both opponents passed, the declarer wins",
            "surrender": "Deal over: the declarer surrendered",
        }.get(outcome, f"Deal over: {outcome}")
        lines = [head]
        for seat, name in enumerate(names):
            r = result[name]
            self.session_totals[seat] += r["deal_score"]
            tricks = f", {r['tricks']} tricks" if outcome == "played" else ""
            lines.append(f"  {self.who(seat)}: {r['deal_score']:+d} ({r['role']}{tricks})")
        totals = self.raw.totals
        if totals is not None:
            lines.append("Totals: " + ", ".join(f"{self.who(s)} {totals[s]}" for s in range(3)))
        else:
            lines.append(
                "Session: "
                + ", ".join(f"{self.who(s)} {self.session_totals[s]:+d}" for s in range(3))
            )
        return lines

    def finish(self) -> list[str]:
        out = self._new_results()
        infos = self.raw.infos
        winners = infos.get(self.me, {}).get("winners") if self.raw.episode == "game" else None
        if winners:
            names = ", ".join(self.who(self.env.possible_agents.index(w)) for w in winners)
            out.append(
                f"Game over: {names} {'win' if len(winners) > 1 or self.me in winners else 'wins'}!"
            )
        elif self.raw.episode == "game" and any(self.raw.truncations.values()):
            out.append("Game stopped: the deal limit was reached.")
        return out


# --- Tri Palki ----------------------------------------------------------------------------------


class TriPalkiTable(_SeatTable):
    """Tri Palki from one seat's point of view."""

    game = "tri_palki"
    episode_word = "round"
    record_key = "rounds"

    def __init__(self, env: Any, seat: int, labels: list[str]):
        from folkcards.envs.cards import TRI_PALKI_CARDS
        from folkcards.envs.tri_palki import rules
        from folkcards.envs.tri_palki.observation import decode

        super().__init__(env, seat, labels, TRI_PALKI_CARDS, rules, decode)

    def cards_text(self, cards: Sequence[int]) -> str:
        return " ".join(self.sym(c) for c in cards) or "—"

    def view(self) -> Any:
        return self.decode(self.env.observe(self.me)["observation"], self.n)

    def _sticks(self, count: int) -> str:
        return "out" if count >= self.rules.ELIMINATED_STICKS else ("|" * count or "-")

    def show(self, obs: dict[str, np.ndarray]) -> str:
        v = self.decode(obs["observation"], self.n)
        rnd = len(self.raw.record()["rounds"]) if self.raw.episode == "match" else None
        title = f"── Tri Palki{f' · round {rnd}' if rnd else ''} · dealer {self.who(self.abs_seat(v.dealer))} · reserve {v.reserve_count} cards"
        lines = [title]
        lines.append(
            "Sticks: "
            + ", ".join(
                f"{self.who(self.abs_seat(r))} {self._sticks(v.sticks[r])}" for r in range(self.n)
            )
        )
        lines.append(f"Centre: {self.cards_text(v.centre)}")
        if v.washed:
            lines.append(f"Washed: {self.cards_text(v.washed)}")
        known = [
            f"{self.who(self.abs_seat(r))} holds {self.cards_text(v.known[r])}"
            for r in range(1, self.n)
            if v.known[r] and not v.eliminated[r]
        ]
        if known:
            lines.append("Known from swaps: " + "; ".join(known))
        if v.announced and v.announcer is not None:
            lines.append(
                f"{self.who(self.abs_seat(v.announcer))} announced the last round: this is a final turn"
            )
        elif v.passes:
            end = " — one more pass ends the round" if v.pass_ends_round else ""
            lines.append(f"Consecutive passes: {v.passes} of {v.survivors}{end}")
        kind = {"safe": " — safe hand", "three_aces": " — three aces"}.get(v.hand_kind or "", "")
        lines.append(f"Your hand: {self.cards_text(v.hand)}  (worth {v.hand_value}{kind})")
        if v.phase == "announce":
            lines.append("You hold 31: announce the last round? Your moves: announce, no announce")
        else:
            example = (
                f"swap {self.cards.name(v.hand[0])} {self.cards.name(v.centre[0])}"
                if v.hand and v.centre
                else "swap 10H QS"
            )
            lines.append(
                f"Your moves: pass, swap <your card> <centre card> (e.g. {example}), swap all"
            )
        return "\n".join(lines)

    def legal_names(self, obs: dict[str, np.ndarray]) -> list[str]:
        return [self.raw.action_to_string(int(a)) for a in np.flatnonzero(obs["action_mask"])]

    def help_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        v = self.decode(obs["observation"], self.n)
        if v.phase == "announce":
            return ["Now: 'announce' (everybody else gets one final turn) or 'no announce'"]
        return [
            "Now: 'pass', 'swap <your card> <centre card>' (e.g. swap 10H QS: your 10H goes to the "
            "centre, QS comes to you), or 'swap all' (your three cards for the three centre cards)",
            "Legal now: " + ", ".join(self.legal_names(obs)),
        ]

    def parse(self, text: str, obs: dict[str, np.ndarray]) -> int:
        r = self.rules
        v = self.decode(obs["observation"], self.n)
        mask = obs["action_mask"]
        key = _normalize(text).replace("↔", " ").replace(" for ", " ").replace(" with ", " ")
        words = key.split()
        if v.phase == "announce":
            if key in ("announce", "a", "yes", "y", "announce last round"):
                return r.ANNOUNCE
            if key in (
                "no announce",
                "no",
                "n",
                "decline",
                "do not announce",
                "don't announce",
                "not announce",
            ):
                return r.NO_ANNOUNCE
            raise MoveError(
                "you hold 31: type 'announce' to announce the last round, or 'no announce'"
            )
        if key in ("pass", "p"):
            return r.PASS
        if key in ("swap all", "all", "swap 3", "swapall"):
            return r.SWAP_ALL
        if key in ("announce", "no announce", "a"):
            raise MoveError("you can announce only at the end of your turn holding a normal 31")
        if words and words[0] in ("swap", "s", "take", "give"):
            words = words[1:]
            if len(words) != 2:
                raise MoveError(
                    "a swap names two cards: your card, then a centre card (e.g. swap 10H QS)"
                )
            ids = []
            for word in words:
                try:
                    ids.append(self.cards.card_id(word))
                except ValueError:
                    raise MoveError(
                        f"{word!r} is not a card: use a rank 6-10, J, Q, K, A and a suit S, C, D, H (e.g. 10H)"
                    ) from None
            a, b = ids
            if a in v.centre and b in v.hand:  # either order is fine: the cards are unique
                a, b = b, a
            if a not in v.hand:
                raise MoveError(
                    f"you do not hold {self.cards.name(a)}; your hand: {self.cards_text(v.hand)}"
                )
            if b not in v.centre:
                raise MoveError(
                    f"{self.cards.name(b)} is not in the centre; centre: {self.cards_text(v.centre)}"
                )
            action = r.SWAP_BASE + 3 * sorted(v.hand).index(a) + sorted(v.centre).index(b)
            if not mask[action]:
                raise MoveError("that swap is not legal now")
            return action
        raise MoveError(f"unknown move {text.strip()!r}; type 'help' for your moves")

    def before_step(self, seat: int, action: int) -> dict[str, Any]:
        before = {"view": self.view(), "name": self.raw.action_to_string(action)}
        if action == self.rules.SWAP_ALL:  # the three cards go face up to the centre: public
            before["given"] = self.raw.state_round().hand_cards(seat)
        return before

    def describe(self, seat: int, action: int, before: dict[str, Any]) -> str | None:
        r = self.rules
        who = self.who(seat)
        mine = seat == self.seat
        if action == r.NO_ANNOUNCE:
            return f"{who}: no announcement" if mine else None  # never shown to the others
        if action == r.ANNOUNCE:
            return f"{who} {'announce' if mine else 'announces'} the last round!"
        if action == r.PASS:
            return f"{who} {'pass' if mine else 'passes'}"
        if action == r.SWAP_ALL:
            v = before["view"]
            given = self.cards_text(sorted(before.get("given", [])))
            return (
                f"{who} {'swap' if mine else 'swaps'} all three cards: "
                f"{'give' if mine else 'gives'} {given}, {'take' if mine else 'takes'} {self.cards_text(v.centre)}"
            )
        words = before["name"].split()  # "swap 10H QS": given, taken (both now public)
        if len(words) == 3:
            give, take = (self.sym(self.cards.card_id(w)) for w in words[1:])
            return (
                f"{who} {'give' if mine else 'gives'} {give}, {'take' if mine else 'takes'} {take}"
            )
        return f"{who}: {before['name']}"

    def events(self, before: dict[str, Any], seat: int, action: int) -> list[str]:
        out = []
        v0 = before["view"]
        results = self._new_results()
        if not results:
            v1 = self.view()
            washed = [c for c in v1.washed if c not in v0.washed]
            if washed:
                out.append(
                    f"  wash! {self.cards_text(washed)} leave the game; new centre {self.cards_text(v1.centre)}"
                )
                if v1.to_act is not None and self.abs_seat(v1.to_act) == seat:
                    out.append(f"  {self.who(seat)} {'act' if seat == self.seat else 'acts'} again")
        return out + results

    def start(self) -> list[str]:
        self._results_seen = 0
        v = self.view()
        return [
            f"New {'match' if self.raw.episode == 'match' else 'round'}; dealer {self.who(self.abs_seat(v.dealer))}"
        ]

    def _summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        names = self.env.possible_agents
        any_info = next(iter(result.values()))
        outcome = {
            "announced": "after the announcement",
            "all_passed": "everybody passed",
            "reserve_empty": "the reserve ran out",
            "truncated": "the turn limit was reached, no sticks given",
        }.get(any_info["outcome"], any_info["outcome"])
        lines = [f"Round over: {outcome}. Hands:"]
        for seat, name in enumerate(names):
            if name not in result:
                continue
            r = result[name]
            kind = {"safe": " safe", "three_aces": " three aces"}.get(r["hand_kind"], "")
            hand = " ".join(self.sym(self.cards.card_id(c)) for c in r.get("hand", []))
            got = ""
            if r["eliminated"]:
                got = " — stick: ELIMINATED"
            elif r["stick"]:
                got = " — gets a stick"
            lines.append(
                f"  {self.who(seat)}: {hand} ({r['hand_value']}{kind}){got}; sticks {self._sticks(r['sticks'])}"
            )
        nxt = any_info.get("next_dealer")
        if any_info.get("winner"):
            winner = any_info["winner"]
            lines.append(
                f"Match over: {self.who(names.index(winner))} {'win' if winner == self.me else 'wins'}!"
            )
        elif nxt and self.raw.episode == "match":
            lines.append(f"Next dealer: {self.who(names.index(nxt))}")
        return lines

    def finish(self) -> list[str]:
        out = self._new_results()
        if (
            self.raw.episode == "match"
            and self.raw.winner is None
            and any(self.raw.truncations.values())
        ):
            out.append("Match stopped: the turn limit was reached.")
        return out


# --- the session ------------------------------------------------------------------------------


class Session:
    """One person against agents; :meth:`run` plays until the person leaves."""

    def __init__(
        self,
        game: str,
        opponents: Sequence[str],
        seat: int = 0,
        seed: int | None = None,
        mode: str | None = None,
        num_players: int | None = None,
        input_fn: InputFn | None = None,
        write: WriteFn | None = None,
        episodes: int | None = None,
    ):
        from folkcards.agents import make_agent

        from .games import MODES, canonical_game

        self.game = canonical_game(game)
        mode = mode or ("deal" if self.game == "paston" else "match")
        if mode not in MODES[self.game]:
            raise ValueError(
                f"{self.game} is played by {' or '.join(MODES[self.game])}, not {mode!r}"
            )
        self.mode = mode
        opponents = list(opponents)
        if not opponents:
            raise ValueError("give at least one opponent (e.g. --opponents heuristic heuristic)")
        if self.game == "paston":
            if num_players not in (None, 3):
                raise ValueError("paston is played by 3: --num-players is for tri-palki")
            n = 3
            if len(opponents) == 1:
                opponents = opponents * 2
        else:
            n = (
                num_players
                if num_players is not None
                else (len(opponents) + 1 if len(opponents) > 1 else 4)
            )
            if not 2 <= n <= 11:
                raise ValueError(f"tri-palki is played by 2 to 11 players, not {n}")
            if len(opponents) == 1:
                opponents = opponents * (n - 1)
        if len(opponents) != n - 1:
            raise ValueError(
                f"{self.game} with {n} players needs {n - 1} opponents (or one, for all seats), got {len(opponents)}"
            )
        if not 0 <= seat < n:
            raise ValueError(f"--seat must be from 0 to {n - 1}, got {seat}")
        self.num_players = n
        self.seat = seat
        self.seed = seed
        self.input_fn = input_fn or input
        self.write = write or (lambda text: print(text, flush=True))
        self.episodes = episodes
        self.env = self._make_env()
        names = self.env.possible_agents
        self.agents: dict[str, Any] = {}
        self.specs: dict[str, str] = {}
        others = iter(opponents)
        for i, name in enumerate(names):
            if i == seat:
                continue
            spec = next(others)
            agent_seed = None if seed is None else seed * 100 + i
            self.agents[name] = make_agent(spec, self.game, name, agent_seed)
            self.specs[name] = spec
        self.labels = [self._label(i) for i in range(n)]
        short = ["you" if i == seat else f"player_{i}" for i in range(n)]
        table_class = PastonTable if self.game == "paston" else TriPalkiTable
        self.table: PastonTable | TriPalkiTable = table_class(self.env, seat, short)

    def _make_env(self) -> Any:
        from .games import env_module

        module = env_module(self.game)
        if self.game == "paston":
            return module.raw_env(episode=self.mode)
        return module.raw_env(num_players=self.num_players, episode=self.mode)

    def _label(self, i: int) -> str:
        if i == self.seat:
            return "you"
        name = f"player_{i}"
        where = ""
        if self.num_players == 3:
            where = ", left" if i == (self.seat + 1) % 3 else ", right"
        elif i == (self.seat + 1) % self.num_players:
            where = ", left"
        return f"{name} ({self.specs[name]}{where})"

    # input ----------------------------------------------------------------------------------------
    def ask(self, prompt: str) -> str | None:
        """One line of input; ``None`` at the end of input."""
        try:
            line = self.input_fn(prompt)
        except EOFError:
            return None
        return "" if line is None else str(line)

    def human_move(self, obs: dict[str, np.ndarray]) -> int | None:
        """Ask until a legal move is typed; ``None`` if the person leaves."""
        while True:
            line = self.ask("your move> ")
            if line is None:
                self.write("\nEnd of input: leaving the table.")
                return None
            key = _normalize(line)
            if not key:
                self.write(
                    "Type a move ("
                    + ", ".join(self.table.legal_names(obs)[:6])
                    + (", ..." if len(self.table.legal_names(obs)) > 6 else "")
                    + "), or 'help'."
                )
                continue
            if key in QUIT_WORDS:
                self.write("You leave the table.")
                return None
            if key in HELP_WORDS:
                self.write("\n".join(self.table.help_lines(obs)))
                self.write(
                    "Commands: help (this list), table (show the table again), quit (leave)."
                )
                continue
            if key in SHOW_WORDS:
                self.write(self.table.show(obs))
                continue
            try:
                action = self.table.parse(line, obs)
            except MoveError as exc:
                self.write(f"Not possible: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - input must never crash the session
                self.write(f"Not understood ({exc}); type 'help' for your moves.")
                continue
            if not obs["action_mask"][action]:
                self.write("That move is not legal now; type 'help' for your moves.")
                continue
            return int(action)

    # play -----------------------------------------------------------------------------------------
    def banner(self) -> str:
        others = [self.labels[i] for i in range(self.num_players) if i != self.seat]
        what = {
            "deal": "single deals",
            "game": "a game to 121",
            "round": "single rounds",
            "match": "a match",
        }[self.mode]
        title = "Paston" if self.game == "paston" else f"Tri Palki ({self.num_players} players)"
        return (
            f"{title}, {what}. You are player_{self.seat}; against " + ", ".join(others) + ".\n"
            "Type your move by name; 'help' lists your moves, 'table' shows the table, 'quit' leaves."
        )

    def play_episode(self, seed: int | None) -> bool:
        """Play one episode; ``False`` if the person left."""
        env = self.env
        env.reset(seed=seed)
        for agent in self.agents.values():
            agent.reset()
        for line in self.table.start():
            self.write(line)
        me = env.possible_agents[self.seat]
        seat_of = {name: i for i, name in enumerate(env.possible_agents)}
        out_of_match = False
        while env.agents:
            name = env.agent_selection
            if env.terminations[name] or env.truncations[name]:
                others_play = any(
                    not (env.terminations[a] or env.truncations[a]) for a in env.agents if a != me
                )
                if name == me and others_play and not out_of_match:
                    out_of_match = True
                    self.write("You are out of the match; the others play on.")
                env.step(None)
                continue
            obs = env.observe(name)
            if name == me:
                self.write("")
                self.write(self.table.show(obs))
                action = self.human_move(obs)
                if action is None:
                    return False
            else:
                action = int(self.agents[name].act(obs))
            seat = seat_of[name]
            before = self.table.before_step(seat, action)
            env.step(action)
            text = self.table.describe(seat, action, before)
            if text:
                self.write(text)
            for line in self.table.events(before, seat, action):
                self.write(line)
        for line in self.table.finish():
            self.write(line)
        return True

    def run(self) -> int:
        """Play until the person leaves; returns the exit code (0, or 130 after Ctrl-C)."""
        try:
            self.write(self.banner())
            number = 0
            while True:
                seed = None if self.seed is None else self.seed + number
                if not self.play_episode(seed):
                    return 0
                number += 1
                if self.episodes is not None and number >= self.episodes:
                    return 0
                word = {"deal": "deal", "game": "game", "round": "round", "match": "match"}[
                    self.mode
                ]
                line = self.ask(f"\nPress Enter for another {word}, or type quit: ")
                if line is None or _normalize(line) in QUIT_WORDS | {"n", "no"}:
                    self.write("Thanks for playing.")
                    return 0
        except KeyboardInterrupt:
            self.write("\nInterrupted: leaving the table.")
            return 130


def run_session(
    game: str,
    opponents: Sequence[str],
    seat: int = 0,
    seed: int | None = None,
    mode: str | None = None,
    num_players: int | None = None,
    input_fn: InputFn | None = None,
    write: WriteFn | None = None,
    episodes: int | None = None,
) -> int:
    """Play in the terminal (or with scripted ``input_fn``/``write``); returns the exit code."""
    session = Session(game, opponents, seat, seed, mode, num_players, input_fn, write, episodes)
    return session.run()


# --- command line -------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="paston, or tri-palki (tri_palki)")
    parser.add_argument(
        "--opponents",
        nargs="+",
        metavar="SPEC",
        help="agent specs for the other seats (random, heuristic, ppo:PATH); one spec fills every "
        "seat (default: heuristic)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    parser.add_argument("--seed", type=int, help="seed of the first deal (default: random)")
    parser.add_argument(
        "--mode",
        choices=("deal", "game", "round", "match"),
        help="paston: deal (default) or game (to 121); tri-palki: match (default) or round",
    )
    parser.add_argument(
        "--num-players", type=int, metavar="N", help="tri-palki table size (default: opponents + 1)"
    )


def main_from_args(
    args: argparse.Namespace, input_fn: InputFn | None = None, write: WriteFn | None = None
) -> int:
    from folkcards.agents import agent_kinds

    from .games import canonical_game

    try:
        game = canonical_game(args.game)
        opponents = args.opponents or ["heuristic" if "heuristic" in agent_kinds() else "random"]
        session = Session(
            game, opponents, args.seat, args.seed, args.mode, args.num_players, input_fn, write
        )
    except (ValueError, ImportError) as exc:
        print(f"folkcards play: error: {exc}", file=sys.stderr)
        return 2
    return session.run()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="folkcards play",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return main_from_args(parser.parse_args(argv))
