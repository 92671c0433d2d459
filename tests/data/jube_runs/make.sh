#!/bin/sh
# Remake the JUBE run directories of this folder with JUBE itself (see SOURCES.md).
#   JUBE=/path/to/venv/bin/jube JUBE_SRC=/path/to/JUBE-checkout sh make.sh
# JUBE_SRC is a checkout of https://github.com/FZJ-JSC/JUBE at the tag REL-2.7.1 (its examples/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/jube-scratch}
# CASES: some of them only (default: all)
cases=${CASES:-result_creation statistic iterations scripting_pattern io_study interrupted}
rm -rf "$work" && mkdir -p "$work"
for case in $cases; do
    if [ -f "$here/$case.xml" ]; then
        mkdir "$work/$case" && cp "$here/$case.xml" "$work/$case/"
    else
        cp -r "$JUBE_SRC/examples/$case" "$work/$case"
    fi
done
for case in $cases; do
    cd "$work/$case"
    file=$case.xml
    # io_study fails on purpose; interrupted is killed (by its third workpackage)
    "$JUBE" run "$file" >/dev/null 2>&1 || true
    "$JUBE" analyse bench_run >/dev/null 2>&1
    "$JUBE" result bench_run > jube-result.txt 2>&1
    "$JUBE" result -s csv bench_run > jube-result.csv 2>&1
    # small: the workpackages' outputs are not read by the import, nor are JUBE's logs
    # but parse.log (the command and JUBE's version) and a small run.log (where it ran)
    find bench_run/000000 -maxdepth 1 -name '*.log' ! -name parse.log \
        ! \( -name run.log -size -64k \) -delete
    find bench_run/000000 -path '*/work/*' -delete
    rm -rf "$here/$case"
    mkdir -p "$here/$case"
    cp -r bench_run jube-result.txt jube-result.csv "$here/$case/"
done
