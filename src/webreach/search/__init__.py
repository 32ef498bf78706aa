"""The search service: engines behind their policy stacks and the router, the engine caller, warm-up tokens.

Nothing below imports this package: the Search/EngineResult contract the policies wrap and routing calls lives
with the policies (policies/contract.py), so search/ sits wholly above them.
"""
