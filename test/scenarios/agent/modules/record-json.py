# A JSON promise module that appends every request it gets (one JSON line
# each) to $CFENGINE_TEST_OVERRIDE_WORKDIR/requests.log, so the policy can
# report them. Attribute "want" picks the result, "rc" the result classes,
# "say" a log message ("level:message").
import json, os, sys

log = open(os.path.join(os.environ["CFENGINE_TEST_OVERRIDE_WORKDIR"], "requests.log"), "a")
log.write("header: " + sys.stdin.readline().split(" ")[0] + "\n")
sys.stdin.readline()
print("record 1.0 v1 json_based action_policy\n", flush=True)
for line in sys.stdin:
    if not line.strip():
        continue
    log.write(line)
    log.flush()
    request = json.loads(line)
    op = request["operation"]
    attributes = request.get("attributes", {})
    answer = {"operation": op, "result": "valid" if op == "validate_promise" else "success"}
    if op == "evaluate_promise":
        answer["result"] = attributes.get("want", "kept")
        if "rc" in attributes:
            answer["result_classes"] = attributes["rc"] if isinstance(attributes["rc"], list) else [attributes["rc"]]
        if "say" in attributes:
            level, _, message = attributes["say"].partition(":")
            answer["log"] = [{"level": level, "message": message}]
    print(json.dumps(answer) + "\n", flush=True)
    if op == "terminate":
        break
