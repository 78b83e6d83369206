"""Compares the locals and upvalues of `ljcore bt --locals=all --json` with a
testdata/locals/ oracle; see locals_compare.sh."""
import json
import sys

ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def string_bytes(rendered):
    """The bytes of a string as ljcore renders it: "..." with Lua escapes."""
    if not (rendered.startswith('"') and rendered.endswith('"')):
        raise ValueError("not a whole string: %r" % rendered[:80])
    s, out, i = rendered[1:-1], bytearray(), 0
    while i < len(s):
        if s[i] != "\\":
            out.append(ord(s[i]))
            i += 1
            continue
        i += 1
        if s[i] in ESCAPES:
            out.append(ESCAPES[s[i]])
            i += 1
            continue
        j = i
        while j < len(s) and j < i + 3 and s[j].isdigit():
            j += 1
        out.append(int(s[i:j]))
        i = j
    return bytes(out)


def expected_value(otype, ovalue, got):
    """None when ljcore's rendering of a scalar matches the oracle's."""
    if ovalue is None:  # the oracle has a value only for scalars
        return None
    if otype == "string":
        try:
            have = string_bytes(got["value"]).hex()
        except (ValueError, IndexError) as e:
            return str(e)
        return None if have == ovalue else "bytes %s, oracle %s" % (have[:80], ovalue[:80])
    if otype in ("nil", "boolean", "number", "cdata"):
        return None if got["value"] == ovalue else "value %r, oracle %r" % (got["value"], ovalue)
    return None


def parse_oracle(path):
    levels = {}
    current = None
    for line in open(path).read().splitlines():
        if line.startswith("path\t"):  # for print_compare.py
            continue
        parts = line.split(" ")
        if parts[0] == "level":
            current = {"what": parts[2], "locals": [], "upvalues": []}
            levels[int(parts[1])] = current
            continue
        kind = parts[0]
        # Names may hold spaces ("(for index)"): type and value are the last fields.
        if len(parts) >= 4 and parts[-2] in ("nil", "boolean", "number", "string", "cdata"):
            name, otype, ovalue = " ".join(parts[1:-2]), parts[-2], parts[-1]
        else:
            name, otype, ovalue = " ".join(parts[1:-1]), parts[-1], None
        entry = {"name": name, "type": otype, "value": ovalue, "kind": kind}
        current["upvalues" if kind == "upvalue" else "locals"].append(entry)
    return levels


def main():
    doc = json.load(open(sys.argv[1]))
    oracle = parse_oracle(sys.argv[2])
    if len(doc["vms"]) != 1:
        sys.exit("FAIL: expected one VM, got %d" % len(doc["vms"]))
    frames = {f["level"]: f for f in doc["vms"][0]["stack"]["frames"]}
    errors, checked, lost = [], 0, 0
    for level, want in sorted(oracle.items()):
        f = frames.get(level)
        if f is None:
            errors.append("level %d: no such frame" % level)
            continue
        if (want["what"] == "C") != (f["what"] == "C"):
            errors.append("level %d: %s frame, oracle %s" % (level, f["what"], want["what"]))
            continue
        if want["what"] == "C":
            continue
        have = {
            "locals": [v for v in f.get("locals", []) if v["kind"] != "temporary"],
            "upvalues": f.get("upvalues", []),
        }
        for part in ("locals", "upvalues"):
            names = [v["name"] for v in have[part]]
            wanted = [v["name"] for v in want[part]]
            if names != wanted:
                errors.append("level %d %s: %s, oracle %s" % (level, part, names, wanted))
                continue
            for got, exp in zip(have[part], want[part]):
                checked += 1
                # A frame compiled in a trace has only what its snapshot
                # keeps; the rest is marked lost, never guessed.
                if got["type"] == "lost" and f.get("trace"):
                    lost += 1
                    continue
                if got["type"] != exp["type"]:
                    errors.append("level %d %s %s: type %s, oracle %s"
                                  % (level, part, exp["name"], got["type"], exp["type"]))
                    continue
                why = expected_value(exp["type"], exp["value"], got)
                if why:
                    errors.append("level %d %s %s: %s" % (level, part, exp["name"], why))
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        sys.exit(1)
    if lost and lost == checked:
        print("FAIL: every variable is lost")
        sys.exit(1)
    print("ok: %d levels, %d variables match the oracle%s"
          % (len(oracle), checked - lost, ", %d lost in trace frames" % lost if lost else ""))


if __name__ == "__main__":
    main()
