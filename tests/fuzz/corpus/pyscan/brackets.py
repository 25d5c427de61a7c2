def f(:
    (((
from_pretrained(
