"""Doc from_pretrained("doc/x")."""
import os, sys
from .models import net as n
from . import (a, b)
# from_pretrained("c/d")
m = AutoModel.from_pretrained(
    "acme/llama-7b", torch_dtype="auto")
load_dataset("imdb")
load_dataset("json", data_files="x")
snapshot_download(repo_id="acme/tok", repo_type="dataset")
hf_hub_download(f"acme/{x}", "w")
s = r"\" + b"x" + u'y'
try: import helpers
except: pass
