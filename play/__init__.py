"""Terminal play for a person, and watching agents or stored games (``folkcards play``, ``folkcards watch``)."""
