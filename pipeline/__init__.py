"""tujie (图解): turn a folder of learning material into one illustrated HTML page.

The stages live in their own modules (ingest, plan, links, simstage, render, check, review,
publish); `pipeline.cli` is the command line; `pipeline.plan.model` is the contract between them.
"""

__version__ = "0.1.0"
