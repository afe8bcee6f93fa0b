"""An agent run in the domain: its inputs and state, the resolve step, the prompt, the
strict parser of what the model says, and why a run failed."""
