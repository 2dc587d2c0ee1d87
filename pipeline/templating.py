"""The one jinja2 set-up for HTML (page, review, site index): autoescape on everywhere, strict
about undefined names, templates from `pipeline.paths.templates_dir()`. Prompts are plain text
for the model and have their own environment in `pipeline.plan.prompting`."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from pipeline.paths import templates_dir


@cache
def html_environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(templates_dir()),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
