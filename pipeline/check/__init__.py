"""The check stage: headless Chromium measures the page in both themes at 1280 and 390 px,
the rules find overlaps and overflows, the fix loop nudges labels. Writes check.json + shots/.
"""
