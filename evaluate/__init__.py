"""folkcards.evaluate"""
