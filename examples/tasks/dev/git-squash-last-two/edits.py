"""The changes of git-squash-last-two's commits, applied in the current
directory: `python3 edits.py readme`, `due` (the --due option, with a typo
in its help) and `typo` (the fix). setup.sh commits them one by one;
check.py applies them to a pristine copy to know what the end result must
be."""

import sys

step = sys.argv[1]
if step == "readme":
    with open("README.md", "w") as f:
        f.write("""# todo

A to-do list kept in todo.txt:

    python3 todo.py add "Water the plants"
    python3 todo.py list
    python3 todo.py done 1
""")
elif step == "due":
    src = open("todo.py").read()
    src = src.replace('''    add.add_argument("text")
''', '''    add.add_argument("text")
    add.add_argument("--due", metavar="YYYY-MM-DD",
                     help="the dtae the task is due")
''')
    src = src.replace('''        tasks.append(args.text)
''', '''        tasks.append(f"{args.text} (due {args.due})" if args.due else args.text)
''')
    open("todo.py", "w").write(src)
    with open("README.md", "a") as f:
        f.write("""
A task can have a due date:

    python3 todo.py add "Pay the rent" --due 2024-06-01
""")
elif step == "typo":
    src = open("todo.py").read()
    src = src.replace("the dtae the task is due", "the date the task is due")
    open("todo.py", "w").write(src)
else:
    sys.exit(f"unknown step {step}")
