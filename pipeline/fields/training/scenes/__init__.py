"""The training field's scene kinds, one module each: pipeline, memory, ring, step_bar, scaling
(what each draws: `pipeline.fields.training.catalogue.SCENE_SHOWS`)."""
