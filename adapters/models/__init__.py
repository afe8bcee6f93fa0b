"""Model providers behind the ``ModelProvider`` port: replay, scripted, Gemini."""
