"""The review stage: screenshot diffs against the last published page → review.html."""
