x = """unterminated
from_pretrained("a/b")
