"""Imperfect-information tools: belief sampling over hidden cards and the Paston open-hand solver."""
