# Thin aliases for tasks.py, which needs nothing but Python and pip.
.PHONY: run test bench env
run test bench env:
	python3 tasks.py $@
