"""triton.language.extra.cpu for the drop-in: its libdevice is tilec's libdevice."""

from . import libdevice  # noqa: F401
