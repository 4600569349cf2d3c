"""The web table: play and replay in the browser (``folkcards serve``)."""
