"""The command line: the parser, the headless commands, and the pack and handout commands.

The only package that knows argparse. `python -m explorer.cli` runs the headless subcommands.
"""
