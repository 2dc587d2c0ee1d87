"""The publish stage: copies a reviewed build into the site folder (or a git branch)
atomically and prints the page's address and a short summary.
"""
