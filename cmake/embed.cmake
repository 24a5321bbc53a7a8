# Turns the text file IN into a C string constant SYM in OUT.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* generated from ${IN} by cmake/embed.cmake */\nconst char ${SYM}[] = {${bytes} 0x00};\n")
