"""triton.tools for the drop-in (tensor_descriptor)."""
