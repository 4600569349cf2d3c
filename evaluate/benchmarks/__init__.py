"""Fixed yardsticks of play, each with its own command: the gauntlet and the bidding benchmarks.

- :mod:`.gauntlet` — one agent against a fixed, versioned reference pool on held-out deals.
- :mod:`.bidding` — an agent's bidding on the held-out open-hand table deals.
- :mod:`.bidding_information` — what an auction tells the others about the bidder's hand.
"""
