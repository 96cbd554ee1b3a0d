"""Batch hallucination auditing for LLM chatbots and RAG assistants, built on Dagster."""

import os

# torch's OpenMP threads busy-wait by default; on a shared 2-core machine that made local
# generation 6-9x slower. Must be set before torch is first imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# litellm otherwise fetches a model price list from the internet at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
