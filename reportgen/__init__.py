"""reportgen: one offline, bilingual HTML report from an LLM serving benchmark round."""

__version__ = "0.1.0"
