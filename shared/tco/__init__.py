"""Total cost of ownership: owning GPUs versus renting them in the cloud."""
