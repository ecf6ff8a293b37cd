"""`mcptui probe`: connect to a request's MCP servers from here, call tools, check the answers.

probing.py connects, calls and reports (no Textual); checks.py decides what is wrong from plain
values; targets.py reads what to probe (a request, or any recording, paste or archive, with
`--header` values); view.py draws a report.
"""
