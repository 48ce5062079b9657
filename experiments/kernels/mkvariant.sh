#!/bin/sh
# mkvariant -- build one 4.3BSD kernel variant in the guest, after GENERIC
# has been built from source in /usr/src/sys/GENERIC (installer/lib/kernels.ts
# runs it; this is the guest's Bourne shell: no functions).
#
#   sh mkvariant.sh NAME "OBJECTS" PATCH ...
#
# 1. /usr/src/sys-NAME: a copy of the kernel's source directories (tar keeps
#    their dates), with the patches applied by applydiff (which changes
#    nothing unless every hunk applies);
# 2. /usr/src/sys-NAME/GENERIC: a copy of GENERIC's build directory, objects
#    and all, less OBJECTS (the objects of the files the patches change, named
#    by the installer; make would see the newer sources anyway) and vmunix;
# 3. make vmunix there: the patched files are compiled again, everything else
#    is GENERIC's, and the kernel is loaded as GENERIC's was.  The kernel's
#    banner names /usr/src/sys-NAME/GENERIC.
# Prints "kernel NAME: built" at the end, or "kernel NAME: FAILED (...)" and
# exits 1 at the first step that fails, after the failing program's own
# messages.

name=$1
objs=$2
shift
shift
k=/usr/lab/kernels
dirs="conf h machine net netimp netinet netns sys vax vaxif vaxmba vaxuba"
echo "===== kernel $name: $*"
cd /usr/src || exit 1
rm -rf sys-$name
mkdir sys-$name || { echo "kernel $name: FAILED (mkdir /usr/src/sys-$name)"; exit 1; }
(cd sys; tar cf - $dirs) | (cd sys-$name; tar xpf -)
for d in $dirs
do
	test -d sys-$name/$d || { echo "kernel $name: FAILED (copying the sources: no $d)"; exit 1; }
done
cd sys-$name
$k/applydiff $* || { echo "kernel $name: FAILED (the patches do not apply)"; exit 1; }
mkdir GENERIC || exit 1
(cd ../sys/GENERIC; tar cf - .) | (cd GENERIC; tar xpf -)
cd GENERIC
test -f locore.o -a -f Makefile || { echo "kernel $name: FAILED (copying GENERIC's objects)"; exit 1; }
rm -f vmunix $objs
make vmunix || { echo "kernel $name: FAILED (make)"; exit 1; }
test -f vmunix || { echo "kernel $name: FAILED (no vmunix)"; exit 1; }
size vmunix
echo "kernel $name: built"
