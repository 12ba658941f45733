#!/bin/sh
# collrt.device.gpu-check-args: gpu-check's usage errors (exit 2), a plan
# that does not load (exit 1), and, where there is no GPU, the one line that
# says why (exit 3).   test-args.sh GPU_CHECK SOURCE_ROOT
check=$1 root=$2 plan=$root/test/runtime/Inputs/plans/ring-all_reduce-3.plan.json
fail=0
expect() { # expect CODE TEXT ARGS...
  code=$1 text=$2; shift 2
  out=$("$check" "$@" 2>&1); got=$?
  if [ "$got" != "$code" ] || ! printf '%s' "$out" | grep -qF -- "$text"; then
    echo "FAIL: gpu-check $*: exit $got (want $code), output:"; echo "$out"
    fail=1
  fi
}
expect 2 "unknown mode 'bogus'" bogus
expect 2 "plan needs PLAN.json and KERNELS.fatbin" plan "$plan"
expect 2 "--bytes: '3Q' is not a size" plan "$plan" k.fatbin --bytes 3Q
expect 2 "unknown option --frobnicate" plan "$plan" k.fatbin --frobnicate
expect 2 "--graph takes auto, yes or no" plan "$plan" k.fatbin --graph maybe
expect 2 "--index 4 is out of range: the plan has 1 collective(s)" plan "$plan" k.fatbin --index 4
expect 1 "cannot open plan 'missing.json'" plan missing.json k.fatbin
out=$("$check" probe 2>&1); got=$?
if [ "$got" = 3 ]; then
  printf '%s\n' "$out" | grep -q "gpu-check: unsupported: no" || {
    echo "FAIL: no-GPU message: $out"; fail=1; }
  echo "no GPU here: $out"
else
  echo "a GPU is present (exit $got): the no-GPU message is not checked"
fi
[ $fail = 0 ] && echo "gpu-check argument errors: ok"
exit $fail
