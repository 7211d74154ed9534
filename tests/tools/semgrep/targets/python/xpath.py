# XPath injection: a value kept free of quotes cannot leave the quoted literal it is put in
# (SonarSource RSPEC S2091's validation, ESAPI's encodeForXPath); the unguarded twin, whose
# check does not stop the request or cleans another character, is reported.
import lxml.etree
from flask import request


def find_safe_raised(root):
    name = request.args.get("name", "")
    if '"' in name:
        raise ValueError(name)
    # ok: py-xpath-injection-taint
    return root.xpath('/users/user[@name="' + name + '"]')  # safe-raised


def find_tainted_raised(root):
    name = request.args.get("name", "")
    if '"' in name.upper():
        print(name)
    # ruleid: py-xpath-injection-taint
    return root.xpath('/users/user[@name="' + name + '"]')  # tainted-raised


def find_safe_rejected(root):
    name = request.args.get("name", "")
    if "'" in name:
        return "no quotes"
    # ok: py-xpath-injection-taint
    return root.xpath(f"/users/user[@name='{name}']")  # safe-rejected


def find_tainted_rejected(root):
    name = request.args.get("name", "")
    if "'" in name:
        print("quote")
    # ruleid: py-xpath-injection-taint
    return root.xpath(f"/users/user[@name='{name}']")  # tainted-rejected


def find_safe_replaced(root):
    name = request.args.get("name", "")
    # ok: py-xpath-injection-taint
    return root.xpath(f"/users/user[@name='{name.replace("'", "&apos;")}']")  # safe-replaced


def find_tainted_replaced(root):
    name = request.args.get("name", "")
    # ruleid: py-xpath-injection-taint
    return root.xpath(f"/users/user[@name='{name.replace("<", "&lt;")}']")  # tainted-replaced
