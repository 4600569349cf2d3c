"""folkcards.train"""
