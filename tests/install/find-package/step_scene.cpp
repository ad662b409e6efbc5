/* SPDX-License-Identifier: MIT */
// step_scene.cpp - the C++ twin of tests/install/step_scene.c, built by CMake through
// find_package(qphys) against an installed tree (tests/scripts/test-install.sh): one "step hash" line
// per step, as `qphys run SCENE --hashes --steps N` prints them.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <qphys/qphys.h>

static qp_world world; // caller-owned, no heap in the engine

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: step_scene SCENE STEPS\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
        std::fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 2;
    }
    qp_scene_info info;
    qp_scene_error err;
    if (qp_scene_load(&world, text.data(), static_cast<unsigned long>(text.size()), &info, &err) != QP_OK) {
        std::fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    const long steps = std::strtol(argv[2], nullptr, 10);
    for (long s = 1; s <= steps; s++) {
        qp_world_step(&world);
        std::printf("%ld %08lx\n", s, static_cast<unsigned long>(qp_world_hash(&world)));
    }
    return 0;
}
