"""Contact of solids made of triangle meshes: dispatch, batches, push-outs."""
