"""What several test modules share (fixtures' machinery, recorded apps, kernels), so that no
test module imports another: `from helpers.tui import recorded_app`, `from helpers.goldens ...`."""
