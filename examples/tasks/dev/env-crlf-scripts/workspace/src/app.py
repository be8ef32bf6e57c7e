from greet import greeting

if __name__ == "__main__":
    print(greeting("world"))
