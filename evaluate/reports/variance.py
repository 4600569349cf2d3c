"""Fewer deals for the same answer: a cross-fitted control variate for duplicate comparisons.

A head-to-head difference ``A − B`` is a mean over deals of ``d_i`` (the per-deal mean of
``A − B`` over the seatings where both sat). Some deals swing more than others whoever plays
them; what the deal itself holds, measured without A or B, can explain part of ``d_i``. The
control variate estimator (e.g. Owen, *Monte Carlo theory, methods and examples*, ch. 8; the
agent-evaluation use: Burch et al., "AIVAT", AAAI 2018, whose heuristic values must be fixed
before the evaluation data are seen) is

    c_i = d_i − β_(−k(i)) · (x_i − μ),        estimate = mean(c_i),

- ``x_i``: features of deal ``i`` that no agent's action touches. Here (:func:`reference_features`)
  the results of a fixed **reference table** (the game's heuristic in every seat, fixed seeds)
  on the same cards, and the sum of their absolute values: how much this deal is worth to each
  seat when played plainly, and how far it swings;
- ``μ``: their exact expectation over the deal distribution, estimated on fresh deals drawn
  independently of the tournament (so it adds variance, not bias);
- ``β_(−k)``: the least-squares slope of ``d`` on ``x`` fitted on the *other* folds of deals
  (cross-fitting, 5 folds), so that ``β`` is independent of the deals it corrects.

``E[β_(−k) (x_i − μ)] = E[β_(−k)] · E[x_i − μ] = 0``: the estimate is unbiased for any
features, whether they help or not; the interval is the t interval of the ``c_i``. The
**variance ratio** ``var(c) / var(d)`` says how many fewer deals give the same interval
(its inverse is the effective-sample gain); a ratio near 1 means the features do not explain
the difference, and then the plain estimate is reported. :func:`unbiasedness_check` draws
many subsamples of a tournament's deals (a finite population with known means) and compares
the mean of the corrected estimates with the population mean.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..statistics import intervals as st


@dataclass(frozen=True)
class Corrected:
    """A plain and a control-variate estimate of one mean difference over deals."""

    deals: int
    plain: float
    plain_ci95: float
    corrected: float
    corrected_ci95: float
    variance_ratio: float  # var(corrected terms) / var(plain terms)

    @property
    def effective_gain(self) -> float:
        """How many plain deals one corrected deal is worth (1 / variance ratio)."""
        return 1.0 / self.variance_ratio if self.variance_ratio > 0 else math.inf

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "effective_gain": self.effective_gain}


def _half_width(values: np.ndarray) -> float:
    if len(values) < 2:
        return math.nan
    interval = st.mean_ci([float(v) for v in values])
    return float(interval.high - interval.mean)


def folds_of(n: int, folds: int, seed: int) -> np.ndarray:
    """A seeded assignment of ``n`` deals to ``folds`` folds of (nearly) equal size."""
    if folds < 2 or n < 2 * folds:
        raise ValueError(f"cross-fitting in {folds} folds needs {2 * max(folds, 2)} deals, got {n}")
    order = np.random.default_rng(seed).permutation(n)
    fold = np.empty(n, dtype=np.int64)
    fold[order] = np.arange(n) % folds
    return fold


def control_variate(
    d: Sequence[float] | np.ndarray,
    x: np.ndarray,
    mu: np.ndarray,
    folds: int = 2,
    seed: int = 0,
) -> Corrected:
    """The plain mean of ``d`` and its cross-fitted control-variate estimate (see the module).

    ``x``: ``(deals, features)``; ``mu``: the features' expectation (``(features,)``)."""
    d = np.asarray(d, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    mu = np.asarray(mu, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != len(d) or mu.shape != (x.shape[1],):
        raise ValueError(f"need x of shape (deals, features) and mu (features,), got {x.shape}")
    fold = folds_of(len(d), folds, seed)
    corrected = np.empty_like(d)
    for k in range(folds):
        train, test = fold != k, fold == k
        xt = x[train] - x[train].mean(axis=0)
        beta, *_ = np.linalg.lstsq(xt, d[train] - d[train].mean(), rcond=None)
        corrected[test] = d[test] - (x[test] - mu) @ beta
    plain_var = float(d.var(ddof=1))
    ratio = float(corrected.var(ddof=1)) / plain_var if plain_var > 0 else 1.0
    return Corrected(
        deals=len(d),
        plain=float(d.mean()),
        plain_ci95=_half_width(d),
        corrected=float(corrected.mean()),
        corrected_ci95=_half_width(corrected),
        variance_ratio=ratio,
    )


def pair_differences(units: Sequence[Mapping[str, Any]], a: str, b: str) -> dict[int, float]:
    """deal -> the mean over its units of ``A − B`` where both sat (the head-to-head terms)."""
    sums: dict[int, list[float]] = {}
    for unit in units:
        scores = {
            n: float(r["score"] or 0) for n, r in zip(unit["seats"], unit["result"], strict=True)
        }
        if a in scores and b in scores:
            sums.setdefault(int(unit["deal"]), []).append(scores[a] - scores[b])
    return {deal: math.fsum(v) / len(v) for deal, v in sorted(sums.items())}


def reference_features(
    game: str,
    deal_options: Sequence[tuple[int, dict[str, Any] | None]],
    env_kwargs: Mapping[str, Any],
    reference: str = "heuristic",
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Per deal (``(seed, reset options)``): the reference table's result in each seat and the
    sum of their absolute values, ``(deals, seats + 1)``; the reference agents' seeds are
    fixed, so the features are a function of the deal alone."""
    from folkcards.agents import make_agent
    from folkcards.agents.episode import play_episode
    from folkcards.envs.registry import game_spec

    env = game_spec(game).raw_env(**env_kwargs)
    seats = list(env.possible_agents)
    table = {s: make_agent(reference, game, s, seed=k) for k, s in enumerate(seats)}
    rows = []
    for index, (seed, options) in enumerate(deal_options):
        for k, s in enumerate(seats):
            table[s].reseed(k)
        run = play_episode(env, table, seed=seed, options=options or None)
        values = np.array([run.returns[s] for s in seats])
        rows.append(np.append(values, np.abs(values).sum()))
        if progress is not None:
            progress(index + 1)
    return np.array(rows)


def unbiasedness_check(
    d: np.ndarray, x: np.ndarray, sample: int, repeats: int, seed: int = 0, folds: int = 2
) -> dict[str, float]:
    """Treat the ``len(d)`` deals as the population (its feature means known exactly), draw
    ``repeats`` samples of ``sample`` deals (with replacement: independent draws) and estimate the difference
    plainly and corrected in each: both means over the repeats should match the population
    mean within their Monte Carlo intervals (the corrected one with a smaller spread)."""
    d = np.asarray(d, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    rng = np.random.default_rng(seed)
    mu = x.mean(axis=0)
    plain, corrected = [], []
    for r in range(repeats):
        pick = rng.choice(len(d), size=sample, replace=True)  # i.i.d. from the population
        est = control_variate(d[pick], x[pick], mu, folds=folds, seed=seed + r)
        plain.append(est.plain)
        corrected.append(est.corrected)
    p, c = np.array(plain), np.array(corrected)
    return {
        "population_mean": float(d.mean()),
        "sample": sample,
        "repeats": repeats,
        "plain_mean": float(p.mean()),
        "plain_mean_ci95": _half_width(p),
        "corrected_mean": float(c.mean()),
        "corrected_mean_ci95": _half_width(c),
        "plain_sd": float(p.std(ddof=1)),
        "corrected_sd": float(c.std(ddof=1)),
    }


# --- a tournament database -------------------------------------------------------------------


def tournament_control_variates(
    db: str,
    reference: str = "heuristic",
    fresh_deals: int = 2000,
    seed: int = 0,
    folds: int = 5,
    progress: Callable[[str, int, int], None] | None = None,
    check_repeats: int = 1000,
) -> dict[str, Any]:
    """Every head-to-head pair of a stored tournament, plainly and with the control variate:
    ``{"reference", "fresh_deals", "pairs": [{a, b, deals, plain, ..., effective_gain,
    unbiasedness_check}]}`` (:func:`unbiasedness_check` on the pair's deals, a quarter of them
    per sample, ``check_repeats`` samples).
    The expectation of the features comes from ``fresh_deals`` deals dealt by the same env with
    seeds from ``seed`` (never the tournament's)."""
    from ..running.verify import config_from_db
    from ..storage.database import Store

    config = config_from_db(db)
    with Store(config.db_path) as store:
        units = list(store.units(with_records=True))
    if not units:
        raise ValueError(f"{db}: no stored deals")
    first: dict[int, dict[str, Any]] = {}
    for unit in units:
        first.setdefault(int(unit["deal"]), unit["record"])
    deals = sorted(first)
    record = first[deals[0]]
    game, env_kwargs = record["game"], dict(record["env_kwargs"])

    def note(what: str) -> Callable[[int], None] | None:
        return None if progress is None else (lambda done: progress(what, done, 0))

    x = reference_features(
        game,
        [(int(first[d]["seed"]), first[d].get("options")) for d in deals],
        env_kwargs,
        reference,
        note("tournament deals"),
    )
    rng = np.random.default_rng(seed)
    fresh = [(int(s), None) for s in rng.integers(2**62, size=fresh_deals)]
    mu = reference_features(game, fresh, env_kwargs, reference, note("fresh deals")).mean(axis=0)
    names = [entrant.name for entrant in config.agents]
    pairs = []
    index = {d: i for i, d in enumerate(deals)}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            by_deal = pair_differences(units, a, b)
            if len(by_deal) < 2 * folds:
                continue
            rows = [index[d] for d in by_deal]
            values = np.array(list(by_deal.values()))
            est = control_variate(values, x[rows], mu, folds=folds, seed=seed)
            check = unbiasedness_check(
                values,
                x[rows],
                sample=max(2 * folds, len(values) // 4),
                repeats=check_repeats,
                seed=seed,
                folds=folds,
            )
            pairs.append({"a": a, "b": b, **est.as_dict(), "unbiasedness_check": check})
    return {
        "db": str(db),
        "game": game,
        "reference": reference,
        "fresh_deals": fresh_deals,
        "seed": seed,
        "folds": folds,
        "features": "the reference table's result in each seat and the sum of their absolute values",
        "pairs": pairs,
    }


def write_control_variates(
    db: str, out: Path, reference: str, fresh_deals: int, quiet: bool = False
) -> Path:
    """``folkcards report --control-variate``: ``out/control_variate.json`` and a table."""
    import json

    if fresh_deals < 2:
        raise ValueError(f"--cv-deals must be 2 or more, got {fresh_deals}")
    from folkcards.agents import make_agent

    data = tournament_control_variates(db, reference, fresh_deals)
    make_agent(reference, data["game"])  # a bad spec was refused above; keep the check cheap
    path = Path(out) / "control_variate.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    if not quiet:
        print(f"control variate (reference table: {reference}; {fresh_deals} fresh deals)")
        print("A − B | deals | plain | corrected | variance ratio | effective gain")
        for p in data["pairs"]:
            print(
                f"{p['a']} − {p['b']} | {p['deals']} | {p['plain']:+.3f} ± {p['plain_ci95']:.3f}"
                f" | {p['corrected']:+.3f} ± {p['corrected_ci95']:.3f} | "
                f"{p['variance_ratio']:.3f} | ×{p['effective_gain']:.2f}"
            )
    return path


TABLE_BEGIN = "<!--control-variate-table-->"
TABLE_END = "<!--/control-variate-table-->"


def markdown_table(files: Sequence[str | Path]) -> str:
    """The page's table of stored ``control_variate.json`` files (one row per pair)."""
    import json

    rows = [
        "| tournament | A − B | deals | plain (95% interval) | corrected (95% interval) | "
        "variance ratio | effective deals per deal | unbiasedness check: plain / corrected "
        "mean of the subsample estimates vs the population mean |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for file in files:
        data = json.loads(Path(file).read_text())
        for p in data["pairs"]:
            c = p["unbiasedness_check"]
            rows.append(
                f"| {Path(file).parent.name} | {p['a']} − {p['b']} | {p['deals']} | "
                f"{p['plain']:+.3f} ± {p['plain_ci95']:.3f} | "
                f"{p['corrected']:+.3f} ± {p['corrected_ci95']:.3f} | "
                f"{p['variance_ratio']:.3f} | {p['effective_gain']:.2f} | "
                f"{c['plain_mean']:+.3f} ± {c['plain_mean_ci95']:.3f} / "
                f"{c['corrected_mean']:+.3f} ± {c['corrected_mean_ci95']:.3f} vs "
                f"{c['population_mean']:+.3f} ({c['repeats']} samples of {c['sample']}) |"
            )
    return "\n".join(rows)


def stored_files(folder: str | Path) -> list[Path]:
    """The ``control_variate.json`` files stored one directory deep under ``folder``."""
    return sorted(Path(folder).glob("*/control_variate.json"))


def refresh_table(page: str | Path, folder: str | Path) -> bool:
    """Rewrite the table between the markers of ``page`` from ``folder``; whether it changed."""
    text = Path(page).read_text()
    start, end = text.index(TABLE_BEGIN) + len(TABLE_BEGIN), text.index(TABLE_END)
    new = text[:start] + "\n" + markdown_table(stored_files(folder)) + "\n" + text[end:]
    if new != text:
        Path(page).write_text(new)
    return new != text


__all__ = [
    "Corrected",
    "refresh_table",
    "stored_files",
    "markdown_table",
    "tournament_control_variates",
    "write_control_variates",
    "control_variate",
    "folds_of",
    "pair_differences",
    "reference_features",
    "unbiasedness_check",
]
