"""The learning pass: what a model may teach the organization."""
