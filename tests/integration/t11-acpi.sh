#!/usr/bin/env bash
# ACPI table overrides (issue 5): a DSDT given with --acpi reaches the
# kernel's initrd table upgrade and reroutes both NICs' interrupts onto one
# line; a table the kernel does not take, a broken source and a missing iasl
# are reported as such; the acpi-irq-share scenario passes under regress.
. "$(dirname "$0")/../lib.sh"
need_guest
command -v iasl >/dev/null || skip_all "iasl missing (make deps installs acpica-tools)"

ASL=$TOP/tests/regress/acpi/irq-share.asl
BROKEN=$TOP/tests/unit/fixtures/acpi/broken.asl

test_expect_success 'the override boots, the kernel takes it, both NICs share IRQ 5' '
	"$NETLAB" run --accel tcg -q --nic A=e1000 --nic B=e1000 --acpi "$ASL" --out "$T_TMP/share" \
		--exec "cat /proc/interrupts > /netlab/out/interrupts"
	d=$T_TMP/share
	test "$(json_get "$d/result.json" verdict)" = ok
	grep -q "ACPI: DSDT ACPI table found in initrd \[kernel/firmware/acpi/00-dsdt.aml\]" "$d/console.log"
	grep -q "ACPI: Table Upgrade: override \[DSDT-BOCHS -BXPC    \]" "$d/console.log"
	# QEMU + SeaBIOS alone put both NICs on IRQ 11: 5 is the table at work.
	grep -Eq "^ *5: .*IO-APIC +5-fasteoi +ethA, ethB$" "$d/files/interrupts"
	! grep -Eq "^ *11: .*eth" "$d/files/interrupts"
	test "$(json_get "$d/acpi.json" taken)" = 1
	test "$(json_get "$d/result.json" acpi.tables.0.signature)" = DSDT
	test "$(json_get "$d/result.json" acpi.tables.0.oem_revision)" = 2
	test "$(json_get "$d/result.json" acpi.tables.0.how)" = override
	test "$(json_get "$d/result.json" acpi.tables.0.sha256)" = \
		"$(sha256sum "$d/acpi/00-irq-share.aml" | cut -d" " -f1)"
	test "$(json_get "$d/result.json" acpi.shared.0.irq)" = 5
	test "$(json_get "$d/result.json" acpi.expect.1.ok)" = true
'

test_expect_success 'a table the kernel keeps back (OEM revision not higher) is infra-error, saying why' '
	sed "s/^DefinitionBlock (\(.*\), 0x00000002)/DefinitionBlock (\1, 0x00000001)/" "$ASL" >"$T_TMP/rev1.asl"
	grep -q "0x00000001)" "$T_TMP/rev1.asl"
	rc=0; "$NETLAB" run --accel tcg -q --topology none --acpi "$T_TMP/rev1.asl" --out "$T_TMP/rev1" \
		--exec true 2>"$T_TMP/rev1.err" || rc=$?
	test $rc = 125
	test "$(json_get "$T_TMP/rev1/result.json" verdict)" = infra-error
	grep -q "rev1.asl.* was not taken: the kernel saw it but kept the firmware" "$T_TMP/rev1.err"
	grep -q "OEM revision must be higher" "$T_TMP/rev1.err"
	test "$(json_get "$T_TMP/rev1/acpi.json" tables.0.taken)" = false
'

test_expect_success 'a broken .asl exits 2 with iasl FILE(LINE), before QEMU starts' '
	rc=0; "$NETLAB" run --accel tcg --acpi "$BROKEN" --out "$T_TMP/broken" --exec true \
		2>"$T_TMP/broken.err" || rc=$?
	test $rc = 2
	grep -q "broken.asl(4) : error 6126 - syntax error" "$T_TMP/broken.err"
	grep -q "hint:" "$T_TMP/broken.err"
	test ! -e "$T_TMP/broken/result.json"
	test ! -e "$T_TMP/broken/initrd.img"
	no_process_with "$T_TMP/broken"
'

test_expect_success 'without iasl: the error names acpica-tools and make deps' '
	rc=0; PATH=/nonexistent "$NETLAB" run --accel tcg --acpi "$ASL" --out "$T_TMP/noiasl" --exec true \
		2>"$T_TMP/noiasl.err" || rc=$?
	test $rc = 125
	grep -q "acpica-tools" "$T_TMP/noiasl.err"
	grep -q "make deps" "$T_TMP/noiasl.err"
	no_process_with "$T_TMP/noiasl"
'

test_expect_success 'acpi-irq-share passes under netlab regress; a broken table is a scenario error' '
	"$NETLAB" regress --out "$T_TMP/reg" acpi-irq-share >"$T_TMP/reg.out" 2>&1
	grep -q "1/1 scenarios passed" "$T_TMP/reg.out"
	test "$(json_get "$(ls -d "$T_TMP"/reg/acpi-irq-share/*/ | head -n 1)/acpi.json" shared.0.irq)" = 5
	mkdir -p "$T_TMP/scn"
	printf "[scenario]\nacpi = %s\n\n[traffic]\ngenerator = udp-stream\n\n[checks]\nno_loss = udp.lost == 0\n" \
		"$BROKEN" >"$T_TMP/scn/acpi-broken.scn"
	rc=0; "$NETLAB" regress --out "$T_TMP/regbad" "$T_TMP/scn/acpi-broken.scn" 2>"$T_TMP/regbad.err" || rc=$?
	test $rc = 2
	grep -q "acpi-broken.scn:2: ACPI source .*broken.asl. does not compile" "$T_TMP/regbad.err"
	grep -q "broken.asl(4) : error 6126 - syntax error" "$T_TMP/regbad.err"
'

test_done
