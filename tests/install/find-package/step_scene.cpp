/* SPDX-License-Identifier: MIT */
// step_scene.cpp - the C++ twin of tests/install/step_scene.c, built by CMake through
// find_package(qphys) against an installed tree (tests/scripts/test-install.sh): one "step hash" line
// per step, as `qphys run SCENE --hashes --steps N` prints them; a scene larger than a world
// of the default capacities in a world of its own size, from the heap (qp_world_init_in).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <qphys/qphys.h>

static qp_world world; // of the default capacities: caller-owned, no heap in the engine

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
    const unsigned long len = static_cast<unsigned long>(text.size());
    if (qp_scene_check(text.data(), len, &info, &err) != QP_OK) {
        std::fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    qp_world *w = &world;
    if (info.bodies > QP_CFG_MAX_BODIES || info.shapes > QP_CFG_MAX_SHAPES || info.joints > QP_CFG_MAX_JOINTS ||
        info.hulls > QP_CFG_MAX_HULLS) {
        qp_world_caps caps = qp_world_caps_for(info.bodies, info.shapes, info.joints);
        if (info.hulls > caps.hulls) caps.hulls = info.hulls;
        const unsigned long bytes = qp_world_memory_size(&caps);
        void *memory = std::malloc(bytes);
        const qp_world_def def = qp_default_world_def();
        if (memory == nullptr || qp_world_init_in(memory, bytes, &caps, &def, &w) != QP_OK) {
            std::fprintf(stderr, "%s: no world of %d bodies\n", argv[1], info.bodies);
            return 2;
        }
    }
    if (qp_scene_load(w, text.data(), len, &info, &err) != QP_OK) {
        std::fprintf(stderr, "%s:%d:%d: error: %s\n", argv[1], err.line, err.column, err.message);
        return 2;
    }
    const long steps = std::strtol(argv[2], nullptr, 10);
    for (long s = 1; s <= steps; s++) {
        qp_world_step(w);
        std::printf("%ld %08lx\n", s, static_cast<unsigned long>(qp_world_hash(w)));
    }
    return 0;
}
