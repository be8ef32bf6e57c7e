mv text_utils.py textutils.py
