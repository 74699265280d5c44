#!/bin/sh
# A line-based promise module that appends every request it gets to
# $CFENGINE_TEST_OVERRIDE_WORKDIR/requests.log (a line "--" after each),
# and answers "valid", then "kept" (or attribute_want), with log lines
# from attribute_say ("level:message").
out="$CFENGINE_TEST_OVERRIDE_WORKDIR/requests.log"
read -r header
echo "header: ${header%% *}" >>"$out"
read -r _blank
printf 'record 1.0 v1 line_based\n\n'
while :; do
  op='' want=kept say=''
  while IFS= read -r line; do
    [ -z "$line" ] && break
    echo "$line" >>"$out"
    case $line in
      operation=*) op=${line#*=} ;;
      attribute_want=*) want=${line#*=} ;;
      attribute_say=*) say=${line#*=} ;;
    esac
  done
  echo "--" >>"$out"
  [ -z "$op" ] && exit 0
  [ -n "$say" ] && echo "log_${say%%:*}=${say#*:}"
  case $op in
    validate_promise) printf 'operation=%s\nresult=valid\n\n' "$op" ;;
    evaluate_promise) printf 'operation=%s\nresult=%s\n\n' "$op" "$want" ;;
    *) printf 'operation=%s\nresult=success\n\n' "$op"; exit 0 ;;
  esac
done
