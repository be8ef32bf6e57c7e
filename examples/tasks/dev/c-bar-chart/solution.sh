# The loop drew count - 1 marks.
sed -i 's/for (int i = 1; i < count; i++)/for (int i = 0; i < count; i++)/' bars.c
