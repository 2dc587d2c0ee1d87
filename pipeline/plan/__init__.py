"""The plan: its typed model, the page rules it must keep, and the plan stage that extracts it
with the LLM (prompting, the Anthropic call, pricing). Reads sources.json, writes plan.json.
"""
