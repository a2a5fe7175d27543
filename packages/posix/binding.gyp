{
  "targets": [
    {
      "target_name": "posix",
      "conditions": [
        ["OS=='win'", {
          "type": "none"
        }, {
          "sources": ["src/posix.c", "src/files.c", "src/xattr.c", "src/memory.c", "src/scan.c"],
          "defines": ["NAPI_VERSION=8", "_FILE_OFFSET_BITS=64"],
          "cflags_c": ["-std=gnu11", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
          "xcode_settings": {
            "MACOSX_DEPLOYMENT_TARGET": "10.15",
            "OTHER_CFLAGS": ["-std=gnu11", "-Wall", "-Wextra"]
          }
        }]
      ]
    }
  ]
}
