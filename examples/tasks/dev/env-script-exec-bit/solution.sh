chmod +x steps/*
