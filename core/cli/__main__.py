from core.cli.main import entry

entry()
