sed -i 's/filename.rstrip(".md") + ".html"/filename.removesuffix(".md") + ".html"/' pages.py
