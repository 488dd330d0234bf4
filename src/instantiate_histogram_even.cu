// filled in by the GPU engine work
