"""Local text generation: the built-in bot's small model, served to litellm as a provider.

Submodules are imported on demand (``provider`` imports litellm, ``local_model`` imports
torch), so importing this package stays cheap for code that only needs the names below.
"""

DEFAULT_LOCAL_MODEL = "local/smollm2-135m-instruct"

__all__ = ["DEFAULT_LOCAL_MODEL"]
