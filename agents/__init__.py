"""folkcards.agents"""
