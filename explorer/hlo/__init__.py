"""HLO text: data model and parser."""
