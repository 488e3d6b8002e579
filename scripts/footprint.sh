#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mccc's flash and RAM footprint on a Cortex-M4F, measured: prints a Markdown table.
#
#   scripts/footprint.sh
#
# Builds the footprint programs of tests/mcu/footprint/ through the `mcu` preset (build/mcu,
# configured first if needed; arm-none-eabi-g++ -Os, MinSizeRel): the same minimal application
# (a SysTick interrupt producing one message type, the main loop consuming it and a second type
# with a visitor) with an mccc bus of 64 (with and without the HIGH lane), 256 and 1,024 slots,
# and without mccc (a one-slot mailbox instead). `arm-none-eabi-size` of each image; mccc's share is the difference to the
# image without it:
#   flash share = (text + data) with mccc - (text + data) without
#   RAM share   = (data + bss)  with mccc - (data + bss)  without
# The table also gives, from the program itself (a non-allocated ELF section, no cost in the
# image), sizeof(bus), the slot size (Bus::SlotBytes(), checked against the measured growth of
# the bus per slot), the ring and HIGH-lane slot counts, and the RAM share minus those slots.
# The bus traits are in tests/mcu/footprint/footprint_app.cpp (FootprintTraits).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Program name suffixes: ring slots, with the default 16-slot HIGH lane unless said otherwise.
readonly VARIANTS=(64 64_no_high_ring 256 1024)
readonly BUILD_DIR=build/mcu

say() {
  echo "footprint.sh: $*" >&2
}

for tool in cmake arm-none-eabi-size arm-none-eabi-objcopy arm-none-eabi-g++ od; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    say "${tool} not found (Debian: gcc-arm-none-eabi binutils-arm-none-eabi cmake)"
    exit 1
  fi
done

if [[ ! -f "${BUILD_DIR}/CMakeCache.txt" ]]; then
  say "configuring the mcu preset"
  cmake --preset mcu >/dev/null
fi
targets=(footprint_baseline)
for variant in "${VARIANTS[@]}"; do
  targets+=("footprint_mccc_${variant}")
done
say "building ${targets[*]}"
cmake --build --preset mcu --target "${targets[@]}" >/dev/null

elf_of() {
  local path="${BUILD_DIR}/tests/mcu/footprint/$1.elf"
  if [[ ! -f "${path}" ]]; then
    say "missing ${path}"
    exit 1
  fi
  echo "${path}"
}

# text data bss of an image (Berkeley format).
sizes_of() {
  arm-none-eabi-size -B "$1" | awk 'NR == 2 { print $1, $2, $3 }'
}

# The words of the program's .footprint_facts section: sizeof(bus), SlotBytes(), measured slot
# bytes, ring slots, HIGH-lane slots, sizeof(stored envelope).
facts_of() {
  local scratch
  scratch="$(mktemp -d)"
  arm-none-eabi-objcopy --dump-section ".footprint_facts=${scratch}/facts" "$1" "${scratch}/copy"
  od -An -v -tu4 "${scratch}/facts" | tr -s ' \n' ' '
  echo
  rm -rf "${scratch}"
}

read -r base_text base_data base_bss < <(sizes_of "$(elf_of footprint_baseline)")
compiler="$(arm-none-eabi-g++ -dumpfullversion)"

echo "Cortex-M4F (-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard), arm-none-eabi-g++ ${compiler}, -Os"
echo "(MinSizeRel), newlib-nano, --gc-sections; bus traits: tests/mcu/footprint/footprint_app.cpp."
echo "Without mccc: text ${base_text} B, data ${base_data} B, bss ${base_bss} B."
echo
echo "| slots (ring + HIGH lane) | slot | sizeof(bus) | text | data | bss | mccc flash | mccc RAM | RAM - slots |"
echo "|---|---|---|---|---|---|---|---|---|"
status=0
for variant in "${VARIANTS[@]}"; do
  elf="$(elf_of "footprint_mccc_${variant}")"
  read -r text data bss < <(sizes_of "${elf}")
  read -r bus_bytes slot_bytes measured_slot ring_slots high_slots envelope_bytes \
    < <(facts_of "${elf}")
  if [[ "${slot_bytes}" != "${measured_slot}" ]]; then
    say "footprint_mccc_${variant}: SlotBytes() = ${slot_bytes} B, but the bus grows by" \
        "${measured_slot} B per slot"
    status=1
  fi
  flash_share=$(((text + data) - (base_text + base_data)))
  ram_share=$(((data + bss) - (base_data + base_bss)))
  slot_ram=$(((ring_slots + high_slots) * slot_bytes))
  echo "| ${ring_slots} + ${high_slots} | ${slot_bytes} B (envelope ${envelope_bytes} B) |" \
       "${bus_bytes} B | ${text} | ${data} | ${bss} | ${flash_share} B | ${ram_share} B |" \
       "$((ram_share - slot_ram)) B |"
done
echo
echo "mccc flash = (text + data) - (text + data without mccc); mccc RAM = (data + bss) - (data +"
echo "bss without mccc); RAM - slots = mccc RAM - (ring + HIGH-lane slots) x slot."
exit "${status}"
