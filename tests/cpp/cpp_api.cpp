/* SPDX-License-Identifier: MIT */
// C++17 against the public API: the umbrella header compiles with
// -Wall -Wextra -Wpedantic -Werror, the library links, and a scene stepped
// from C++ gives the hash the C tool prints for it (tests/scripts/test-api.sh), in a static
// qp_world and in a world of the scene's size in memory from the heap (qp_world_init_in).
//   cpp_api SCENE STEPS   prints "hash XXXXXXXX" after STEPS steps
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include "qphys/qphys.h"

static qp_world world;

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: cpp_api SCENE STEPS\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return 2;
    qp_scene_info info{};
    qp_scene_error err{};
    if (qp_scene_load(&world, text.data(), text.size(), &info, &err) != QP_OK) {
        std::fprintf(stderr, "%s:%d: %s\n", argv[1], err.line, err.message);
        return 2;
    }
    const int steps = std::atoi(argv[2]);
    for (int i = 0; i < steps; i++) qp_world_step(&world);
    // The same scene in a world of its own size.
    const qp_world_caps caps = qp_world_caps_for(info.bodies, info.shapes, info.joints > 0 ? info.joints : 1);
    const unsigned long bytes = qp_world_memory_size(&caps);
    void *memory = std::malloc(bytes);
    qp_world *sized = nullptr;
    qp_world_def def = qp_default_world_def();
    if (!memory || qp_world_init_in(memory, bytes, &caps, &def, &sized) != QP_OK ||
        qp_scene_load(sized, text.data(), text.size(), nullptr, &err) != QP_OK) {
        std::fprintf(stderr, "%s: a world of its size refused it\n", argv[1]);
        return 2;
    }
    for (int i = 0; i < steps; i++) qp_world_step(sized);
    if (qp_world_hash(sized) != qp_world_hash(&world)) {
        std::fprintf(stderr, "%s: a world of its size steps to another hash\n", argv[1]);
        return 1;
    }
    std::free(memory);
    std::printf("hash %08lx\n", static_cast<unsigned long>(qp_world_hash(&world)));
    return 0;
}
