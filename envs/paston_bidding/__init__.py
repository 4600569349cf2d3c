"""Paston bidding research env: the auction and decisions of Paston, the tricks from the solver."""
