"""The counterfactual: what a held or rejected intent would have done unenforced."""
