#!/bin/sh
# Remake the JUBE run directories of this folder with JUBE itself (see SOURCES.md).
#   JUBE=/path/to/venv/bin/jube JUBE_SRC=/path/to/JUBE-checkout sh make.sh
# JUBE_SRC is a checkout of https://github.com/FZJ-JSC/JUBE at the tag REL-2.7.1 (its examples/).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-/tmp/jube-scratch}
rm -rf "$work" && mkdir -p "$work"
for example in result_creation statistic iterations scripting_pattern; do
    cp -r "$JUBE_SRC/examples/$example" "$work/$example"
done
mkdir "$work/io_study" && cp "$here/io_study.xml" "$work/io_study/"
for case in result_creation statistic iterations scripting_pattern io_study; do
    cd "$work/$case"
    file=$case.xml
    "$JUBE" run "$file" >/dev/null 2>&1 || true   # io_study fails on purpose
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
