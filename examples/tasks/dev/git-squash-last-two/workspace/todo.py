"""A to-do list in a text file, one task per line.

    python3 todo.py add "Water the plants"
    python3 todo.py list
    python3 todo.py done 2
"""

import argparse
import pathlib

FILE = pathlib.Path("todo.txt")


def load():
    if not FILE.exists():
        return []
    return [line for line in FILE.read_text().splitlines() if line.strip()]


def save(tasks):
    FILE.write_text("".join(task + "\n" for task in tasks))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="todo")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a task")
    add.add_argument("text")
    sub.add_parser("list", help="show the tasks")
    done = sub.add_parser("done", help="remove the task with this number")
    done.add_argument("number", type=int)
    args = parser.parse_args(argv)

    tasks = load()
    if args.command == "add":
        tasks.append(args.text)
        save(tasks)
    elif args.command == "list":
        for i, task in enumerate(tasks, 1):
            print(f"{i}. {task}")
    elif args.command == "done":
        del tasks[args.number - 1]
        save(tasks)


if __name__ == "__main__":
    main()
