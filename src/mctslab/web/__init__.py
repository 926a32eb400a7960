"""The web board: ``mctslab serve`` runs :func:`create_app` (needs the ``web`` extra)."""

from mctslab.web.app import create_app

__all__ = ["create_app"]
